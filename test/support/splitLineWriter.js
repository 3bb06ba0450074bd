// A second process that writes one entry line in pieces, as a writer that
// flushes part of a line can. Prints "half" once the first half is on disk.
// Usage: node splitLineWriter.js FILE PARENT_ID MODE
//   finish: writes the rest (and the line break) when a line arrives on stdin, then exits
//   die:    exits with the half line on disk (a writer that died mid-line)
//   drip:   writes one more byte of the line every 50 ms and never finishes it
//   pause:MS writes the rest MS milliseconds after the first half (a writer paused or swapped out mid-line), then exits
const fs = require('node:fs');
const [file, parentId, mode] = process.argv.slice(2);
const entry = { type: 'custom', id: 'split001', parentId, timestamp: new Date().toISOString(), customType: 'other-writer', data: { text: 'x'.repeat(2000) } };
const line = JSON.stringify(entry) + '\n';
const half = Math.floor(line.length / 2);
const fd = fs.openSync(file, 'a');
fs.writeSync(fd, line.slice(0, half));
process.stdout.write('half\n');
if (mode === 'die') process.exit(0);
if (mode === 'drip') {
  let pos = half;
  setInterval(() => {
    if (pos < line.length - 2) fs.writeSync(fd, line[pos++]);
  }, 50);
} else if (mode.startsWith('pause:')) {
  setTimeout(() => {
    fs.writeSync(fd, line.slice(half));
    fs.closeSync(fd);
    process.exit(0);
  }, Number(mode.slice('pause:'.length)));
} else {
  process.stdin.once('data', () => {
    fs.writeSync(fd, line.slice(half));
    fs.closeSync(fd);
    process.exit(0);
  });
}
