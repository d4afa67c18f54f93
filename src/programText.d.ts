// The shell and awk programs beside the modules that run them, imported as their text (scripts/build.mjs's esbuild
// loader, vitest.config.ts's programText plugin).
declare module '*.sh' {
  const text: string;
  export default text;
}
declare module '*.awk' {
  const text: string;
  export default text;
}
