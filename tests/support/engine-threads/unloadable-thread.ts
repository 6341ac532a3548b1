/** A ThreadedBuiltinEngine thread module that fails while loading, as engine-thread.ts does when the thread cannot load TypeScript. */
throw new Error('this engine thread cannot load');
