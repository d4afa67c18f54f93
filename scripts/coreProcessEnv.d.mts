// Types of coreProcessEnv.mjs, for the tests that start the Core as `npm start` does.
export declare const TRIM_THRESHOLD: string;
export declare function coreProcessEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
