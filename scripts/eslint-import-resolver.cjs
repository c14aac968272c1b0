// The import resolver of the layer check in eslint.config.js (eslint-plugin-boundaries finds what
// an import names through eslint-plugin-import's resolver interface, version 2). arbor's imports
// are relative and name the compiled `.js` file of a `.ts` source (NodeNext), which Node's own
// resolution does not map back: this does, for relative imports only. Packages and Node's modules
// are left to the `node` resolver listed after it.
'use strict';

const { existsSync } = require('node:fs');
const path = require('node:path');

exports.interfaceVersion = 2;

exports.resolve = function resolve(source, file) {
  if (!source.startsWith('.')) return { found: false };
  const target = path.resolve(path.dirname(file), source);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target])
    if (existsSync(candidate)) return { found: true, path: candidate };
  return { found: false };
};
