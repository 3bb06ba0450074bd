// A second process appending entries the way Pi does (one appendFileSync of a
// complete line per entry, parentId = the previous entry), for a stress test.
// Usage: node piLikeWriter.js FILE COUNT DELAY_MS
const fs = require('node:fs');
const crypto = require('node:crypto');
const [file, countArg, delayArg] = process.argv.slice(2);
const count = Number(countArg);
const delay = Number(delayArg);
function leafId() {
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  for (let i = lines.length - 1; i > 0; i--) {
    try {
      return JSON.parse(lines[i]).id;
    } catch {
      /* a line being written */
    }
  }
  return null;
}
let i = 0;
function step() {
  if (i++ >= count) return;
  const id = crypto.randomBytes(4).toString('hex');
  const text = `concurrent message ${i} `.repeat(1 + (i % 50));
  const entry = { type: 'message', id, parentId: leafId(), timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() } };
  fs.appendFileSync(file, JSON.stringify(entry) + '\n');
  setTimeout(step, delay);
}
step();
