// Entry of the `switchboard` binary.
import { buildProgram } from './program.js';
import { fail } from './output.js';

buildProgram().parseAsync(process.argv).catch(fail);
