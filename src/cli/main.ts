#!/usr/bin/env node
import './hold-warnings.js';
import { processIo } from './output.js';
import { routeProcessWarnings, warningText } from './process-warnings.js';
import { runCli } from './run-cli.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());
// What no command routed is printed as Node would have, once the command's output is done.
routeProcessWarnings((warning) => process.stderr.write(warningText(warning)));
