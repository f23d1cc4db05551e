import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, MAIN, median, ms, stdioToolsListTime, verdict } from './common.mjs';

const RUNS = 9;
// Peers that run over stdio from their npm package (briefs/landscape.md), given a dummy credential.
const PEERS = [
  { name: 'mcp-server-gsc@0.3.0', pkg: 'mcp-server-gsc@0.3.0', bin: 'mcp-server-gsc' },
  { name: '@mikusnuz/gsc-mcp@1.3.3', pkg: '@mikusnuz/gsc-mcp@1.3.3', bin: 'gsc-mcp' },
  { name: 'search-console-mcp@2.1.3', pkg: 'search-console-mcp@2.1.3', bin: 'search-console-mcp' },
];

async function timeRuns(command, args, env) {
  const times = [];
  await stdioToolsListTime(command, args, env); // warm the file cache
  for (let i = 0; i < RUNS; i++) times.push(await stdioToolsListTime(command, args, env));
  return median(times);
}

export async function coldStart() {
  const ours = await timeRuns(process.execPath, [MAIN], cleanEnv());
  const rows = [{ bar: 'cold start: spawn → tools/list (stdio)', target: '≤ 300 ms', measured: `${ms(ours)} (median of ${RUNS})`, verdict: verdict(ours <= 300) }];
  if (process.env.BENCH_PEERS !== '1') return rows;
  const dir = join(tmpdir(), 'gsc-bench-peers');
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'dummy-key.json');
  writeFileSync(keyFile, JSON.stringify({ type: 'service_account', client_email: 'x@y.iam.gserviceaccount.com', private_key: 'dummy' }));
  let fastest = Infinity;
  for (const peer of PEERS) {
    try {
      const bin = join(dir, 'node_modules/.bin', peer.bin);
      if (!existsSync(bin)) execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--ignore-scripts', '--omit=dev', peer.pkg], { stdio: 'ignore' });
      const t = await timeRuns(process.execPath, [bin], cleanEnv({ GOOGLE_APPLICATION_CREDENTIALS: keyFile, GSC_CREDENTIALS_PATH: keyFile }));
      fastest = Math.min(fastest, t);
      rows.push({ bar: `  peer ${peer.name}`, target: '', measured: ms(t), verdict: '' });
    } catch (error) {
      rows.push({ bar: `  peer ${peer.name}`, target: '', measured: `not measured (${error.message.split('\n')[0]})`, verdict: '' });
    }
  }
  if (Number.isFinite(fastest)) {
    rows.push({ bar: 'cold start vs fastest peer', target: '≤ 0.5×', measured: `${(ours / fastest).toFixed(2)}×`, verdict: verdict(ours / fastest <= 0.5) });
  }
  return rows;
}
