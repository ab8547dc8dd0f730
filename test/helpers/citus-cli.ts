import { startCitusCluster } from './citus.js';

/**
 * `node --import tsx test/helpers/citus-cli.ts`: starts a Citus cluster for a test pass
 * (scripts/test.sh), prints the coordinator's URL on a line of its own, and stops the cluster when
 * it is told to end (SIGTERM, SIGINT) or its input closes.
 */
const cluster = await startCitusCluster();
process.stdout.write(`${cluster.url}\n`);
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void cluster.stop().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
