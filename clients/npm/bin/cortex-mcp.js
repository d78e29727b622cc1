#!/usr/bin/env node
// `npx cortex-mcp` runs the Python server: through `uvx --from cortex-mcp-server cortex-mcp`, or,
// without uv, through `python3 -m cortex_mcp` / `python -m cortex_mcp` when that Python has the
// distribution cortex-mcp-server installed at this package's version (an importable `cortex_mcp`
// alone proves nothing: the unrelated PyPI project `cortex-mcp` uses the same import name). Arguments,
// environment and stdio pass through untouched (on stdio, stdout is the MCP protocol: this file
// never writes to it). Signals are forwarded; the server's exit code becomes ours. When uvx
// cannot get the package (not on PyPI yet, offline), the Python fallbacks are tried next.
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { constants } = require('node:os');

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const DISTRIBUTION = 'cortex-mcp-server';
const VERSION = require('../package.json').version;
const HOW =
  'set CORTEX_MCP_UVX_FROM to a checkout or a wheel of cortex-mcp (uvx --from it; uv: ' +
  'https://docs.astral.sh/uv/), or install that wheel into python3.';
const NOT_FOUND =
  `cortex-mcp: neither \`uvx\` nor a Python with ${DISTRIBUTION} ${VERSION} (module cortex_mcp) ` +
  `is on PATH; ${HOW}`;
const UVX_FAILED =
  `cortex-mcp: uvx could not get ${DISTRIBUTION}==${VERSION} and no Python on PATH has it; ${HOW}`;
// What uv writes before it starts the program (progress, then an error); the server's own lines
// look otherwise. Lines are held while they look like this, so a uv failure can be replaced.
const UV_LINE = /^($|\s|error:|warning:|hint:|Resolved |Prepared |Installed |Uninstalled |Downloading |Downloaded |Building |Built |Audited |Using |Updated |Updating )/;
// Exit 0 only when the installed distribution is ours, at our version.
const PROBE =
  'import sys\nfrom importlib.metadata import PackageNotFoundError, version\n' +
  `try:\n    sys.exit(0 if version(${JSON.stringify(DISTRIBUTION)}) == ` +
  `${JSON.stringify(VERSION)} else 1)\n` +
  'except PackageNotFoundError:\n    sys.exit(1)\n';

/** The ways to start the server, in order. CORTEX_MCP_UVX_FROM=<wheel|dir|git URL> pins uvx's source. */
function launchers(args) {
  const pinned = process.env.CORTEX_MCP_UVX_FROM;
  const uvx = ['--from', pinned || `${DISTRIBUTION}==${VERSION}`, 'cortex-mcp'];
  return [
    { command: 'uvx', args: [...uvx, ...args], uv: true, fallsThrough: !pinned },
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

/**
 * uv's stderr, passed on line by line, except that lines looking like uv's own are held until
 * the first line that does not (the server's) or the end. `failed()` says whether uv stopped
 * with an error before the server wrote anything; `release()` passes on what was held.
 */
function uvStderr(stream) {
  let held = '';
  let partial = '';
  let live = false;
  stream.on('data', (chunk) => {
    if (live) {
      process.stderr.write(chunk);
      return;
    }
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      if (live || !UV_LINE.test(line)) {
        if (!live) process.stderr.write(held);
        live = true;
        process.stderr.write(line + '\n');
      } else {
        held += line + '\n';
      }
    }
  });
  return {
    failed: () => !live && /^error:/m.test(held + partial),
    release: () => process.stderr.write(held + partial),
  };
}

function start(remaining, notFound = NOT_FOUND) {
  const [launcher, ...rest] = remaining;
  if (!launcher) {
    process.stderr.write(notFound + '\n');
    process.exit(127);
  }
  if (launcher.needsModule && !hasModule(launcher.command)) {
    start(rest, notFound);
    return;
  }
  const stdio = launcher.uv ? ['inherit', 'inherit', 'pipe'] : 'inherit';
  const spawned = spawn(launcher.command, launcher.args, { stdio });
  const uvErrors = launcher.uv ? uvStderr(spawned.stderr) : null;
  child = spawned;
  spawned.on('error', (error) => {
    child = null;
    if (error.code === 'ENOENT') {
      start(rest, notFound);
      return;
    }
    process.stderr.write(`cortex-mcp: cannot run ${launcher.command}: ${error.message}\n`);
    process.exit(126);
  });
  // 'close', not 'exit': by then the piped stderr has been read to its end.
  spawned.on('close', (code, signal) => {
    if (child !== spawned) return;
    if (uvErrors && code !== 0 && !signal && launcher.fallsThrough && uvErrors.failed()) {
      child = null; // uv never started the server: stdin is untouched, the next one gets it
      start(rest, UVX_FAILED);
      return;
    }
    if (uvErrors) uvErrors.release();
    exitLike(code, signal);
  });
}

start(launchers(process.argv.slice(2)));
