/**
 * scrypt (logins), sharp (images) and file I/O (storage, SQLite) share libuv's thread pool, 4 threads by
 * default: a burst of logins would stall every file read. The pool is sized when first used, so this
 * module is imported first by every entry point. An operator's own UV_THREADPOOL_SIZE wins.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';
