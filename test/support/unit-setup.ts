// The in-process job queues of the local runtime, for code under test that enqueues a job.
import '../../infra/local/queues.js';
