import path from 'node:path';
import { FleetIdentity } from '../fleet/fleet-identity.js';
import { writePrivateKeyFile } from '../fleet/key-file.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';

const KEYGEN_HELP = `Usage: arbor worker keygen [--out FILE]

Makes a fleet identity: an Ed25519 key pair. Writes the private key to FILE (PKCS#8 PEM, mode
0600; an existing file is never overwritten) and prints the public key on the first line of
stdout, as \`ed25519:\` and its 32 bytes in base64, then its key id (the first 16 hex digits of
the SHA-256 of those bytes). Every process of a fleet has its own: each worker, and the
supervisor.

  --out FILE   where the private key goes (default: arbor-fleet.key here)

Then:
  a worker's public key    goes in the supervisor's config, which admits it:
                             [[queue.admit]]
                             name = "w1"
                             public_key = "ed25519:…"
  its private key          is named by \`arbor worker --key FILE\` or [queue.worker] key = "file:…"
  the supervisor's public  goes to each worker: --supervisor-key ed25519:… or
  key                        [[queue.supervisor]] public_key = "ed25519:…"
  its private key          is named by [queue] key = "file:…" or ARBOR_FLEET_PRIVATE_KEY_FILE
`;

const KEYGEN_OPTIONS = {
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `arbor worker keygen`: writes a new private key file and prints its public half. */
export async function workerKeygen(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('worker keygen', args, KEYGEN_OPTIONS, true);
  if (values.help === true) {
    await write(io.stdout, KEYGEN_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw usageError(
      `\`arbor worker keygen\` takes no arguments; got \`${positionals.join(' ')}\` (the file goes in \`--out\`).`,
    );
  const file = path.resolve(values.out ?? 'arbor-fleet.key');
  const { identity, pem } = FleetIdentity.generate();
  writePrivateKeyFile(file, pem);
  await write(io.stdout, `${identity.publicKey.text}\nkey id ${identity.publicKey.id}\n`);
  await write(
    io.stderr,
    `arbor worker keygen: wrote the private key to ${file} (mode 0600). Admit the public key above in the supervisor's [[queue.admit]] (a worker's), or give it to the workers as --supervisor-key (the supervisor's).\n`,
  );
  return EXIT.ok;
}
