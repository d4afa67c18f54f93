// Entry of the `switchboard` binary.
import { buildProgram } from './program.js';
import { exitWhenFlushed, fail, isLongRunning } from './output.js';

buildProgram(process.argv)
  .then((program) => program.parseAsync(process.argv))
  .then(() => {
    // One-shot commands end here; idle SSH connections or file watchers must not hold the shell prompt.
    if (!isLongRunning()) exitWhenFlushed();
  })
  .catch(fail);
