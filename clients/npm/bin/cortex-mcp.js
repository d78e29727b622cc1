#!/usr/bin/env node
// `npx cortex-mcp` runs the Python server: through `uvx cortex-mcp`, or, without uv, through
// `python3 -m cortex_mcp` / `python -m cortex_mcp` when that Python has the package. Arguments,
// environment and stdio pass through untouched (on stdio, stdout is the MCP protocol: this file
// never writes to it). Signals are forwarded; the server's exit code becomes ours.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { constants } = require('node:os');

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const NOT_FOUND =
  'cortex-mcp: neither `uvx` nor a Python with the cortex_mcp package is on PATH; ' +
  'install uv (https://docs.astral.sh/uv/) or the cortex-mcp Python package ' +
  '(https://github.com/cortex-mcp/cortex-mcp), then try again.';

/** The ways to start the server, in order. CORTEX_MCP_UVX_FROM=<wheel|dir|git URL> pins uvx's source. */
function launchers(args) {
  const from = process.env.CORTEX_MCP_UVX_FROM;
  const uvx = from ? ['--from', from, 'cortex-mcp'] : ['cortex-mcp'];
  return [
    { command: 'uvx', args: [...uvx, ...args] },
    { command: 'python3', args: ['-m', 'cortex_mcp', ...args], needsModule: true },
    { command: 'python', args: ['-m', 'cortex_mcp', ...args], needsModule: true },
  ];
}

/** A Python counts only if it can import the package; otherwise the next one is tried. */
function hasModule(python) {
  const probe = spawnSync(python, ['-c', 'import cortex_mcp'], { stdio: 'ignore' });
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
