#!/usr/bin/env node
// `npx cortex-mcp` runs the Python server: through `uvx --from cortex-mcp-server cortex-mcp`, or,
// without uv, through `python3 -m cortex_mcp` / `python -m cortex_mcp` when that Python has the
// distribution cortex-mcp-server installed at this package's version (an importable `cortex_mcp`
// alone proves nothing: the unrelated PyPI project `cortex-mcp` uses the same import name). Arguments,
// environment and stdio pass through untouched (on stdio, stdout is the MCP protocol: this file
// never writes to it). Signals are forwarded; the server's exit code becomes ours.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { constants } = require('node:os');

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const DISTRIBUTION = 'cortex-mcp-server';
const VERSION = require('../package.json').version;
const NOT_FOUND =
  `cortex-mcp: neither \`uvx\` nor a Python with ${DISTRIBUTION} ${VERSION} (module cortex_mcp) ` +
  'is on PATH; install uv (https://docs.astral.sh/uv/) or ' +
  `\`pip install ${DISTRIBUTION}==${VERSION}\`, then try again.`;
// Exit 0 only when the installed distribution is ours, at our version.
const PROBE =
  'import sys\nfrom importlib.metadata import PackageNotFoundError, version\n' +
  `try:\n    sys.exit(0 if version(${JSON.stringify(DISTRIBUTION)}) == ` +
  `${JSON.stringify(VERSION)} else 1)\n` +
  'except PackageNotFoundError:\n    sys.exit(1)\n';

/** The ways to start the server, in order. CORTEX_MCP_UVX_FROM=<wheel|dir|git URL> pins uvx's source. */
function launchers(args) {
  const from = process.env.CORTEX_MCP_UVX_FROM || `${DISTRIBUTION}==${VERSION}`;
  const uvx = ['--from', from, 'cortex-mcp'];
  return [
    { command: 'uvx', args: [...uvx, ...args] },
    { command: 'python3', args: ['-m', 'cortex_mcp', ...args], needsModule: true },
    { command: 'python', args: ['-m', 'cortex_mcp', ...args], needsModule: true },
  ];
}

/** A Python counts only if it has our distribution at our version; otherwise the next is tried. */
function hasModule(python) {
  const probe = spawnSync(python, ['-c', PROBE], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

function exitLike(code, signal) {
  process.exit(signal ? 128 + (constants.signals[signal] || 0) : code === null ? 1 : code);
}

let child = null;

for (const signal of FORWARDED_SIGNALS) {
  try {
    process.on(signal, () => (child ? child.kill(signal) : exitLike(null, signal)));
  } catch {
    // Not every platform lets a process listen for every signal (SIGHUP on some Windows builds).
  }
}

function start(remaining) {
  const [launcher, ...rest] = remaining;
  if (!launcher) {
    process.stderr.write(NOT_FOUND + '\n');
    process.exit(127);
  }
  if (launcher.needsModule && !hasModule(launcher.command)) {
    start(rest);
    return;
  }
  const spawned = spawn(launcher.command, launcher.args, { stdio: 'inherit' });
  child = spawned;
  spawned.on('error', (error) => {
    child = null;
    if (error.code === 'ENOENT') {
      start(rest);
      return;
    }
    process.stderr.write(`cortex-mcp: cannot run ${launcher.command}: ${error.message}\n`);
    process.exit(126);
  });
  spawned.on('exit', (code, signal) => {
    if (child === spawned) exitLike(code, signal);
  });
}

start(launchers(process.argv.slice(2)));
