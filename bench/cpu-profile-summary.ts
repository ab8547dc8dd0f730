import { readProfile, summarise } from './lib/cpu-profile.js';

/**
 * Prints where a V8 CPU profile spends its time.
 * Usage: tsx bench/cpu-profile-summary.ts <file.cpuprofile> [top=25]
 */
const [file, topText] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: tsx bench/cpu-profile-summary.ts <file.cpuprofile> [top=25]\n');
  process.exit(2);
}
process.stdout.write(`${summarise(readProfile(file), Number(topText ?? 25))}\n`);
