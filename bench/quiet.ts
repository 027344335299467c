/** Imported first by a benchmark that runs the service in its process: warnings and errors only, unless LOG_LEVEL says. */
process.env.LOG_LEVEL ??= 'warn';
