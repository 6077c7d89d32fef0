// Preload (`node -r ./bench/main-thread-cpu.cjs ...`): at exit, prints to stderr the CPU seconds of the main thread
// (user + sys of the task whose id is the pid, from /proc) and of the whole process. Linux only. With a CSV worker
// on two cores, the main thread is what bounds the rate (docs/performance.md, CPU per row).
const fs = require('node:fs');

process.on('exit', () => {
  const seconds = (path) => {
    const stat = fs.readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  };
  const main = seconds(`/proc/self/task/${process.pid}/stat`);
  fs.writeSync(2, `CPU main ${main.toFixed(2)} all ${seconds('/proc/self/stat').toFixed(2)}\n`);
});
