// Starts `noveltygrid serve-sim` for the SDK tests (openai_node/, anthropic_node/): on a port the kernel
// picks, requiring API_KEY; every server started is killed outright if the test process exits without
// stopping it.
import { spawn } from 'node:child_process';

const LISTENING = /noveltygrid serve-sim: listening on 127\.0\.0\.1:(\d+)/;
const START_TIMEOUT_MS = 20_000;  // a safety net for a broken binary, not a synchronisation

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

// Starts serve-sim on a port the kernel picks and resolves once it prints that port.
export function startServeSim(BIN, API_KEY, extraArgs = []) {
  const child = spawn(BIN, ['serve-sim', '--listen', '127.0.0.1:0', ...extraArgs], {
    env: { ...process.env, NOVELTYGRID_SIM_API_KEY: API_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
    child.on('error', (err) => {  // not started: no 'exit' follows
      children.delete(child);
      resolve({ code: null, signal: null, error: err.message });
    });
  });
  const port = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve-sim did not announce its port:\n${output}`)), START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const match = LISTENING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    exited.then(({ code, signal, error }) => {
      clearTimeout(timer);
      reject(new Error(error !== undefined ? `cannot start ${BIN}: ${error}`
                                           : `serve-sim exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  });
  port.catch(() => {});  // observed by the caller; this keeps a late rejection from being "unhandled"
  return {
    port,
    output: () => output,
    // SIGTERM and wait; serve-sim exits 0 after draining.
    async stop() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
