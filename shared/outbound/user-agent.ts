import { buildStamp } from '../build/stamp.js';

/** The package name: agents and webhook receivers see `User-Agent: eval-platform-api/<version>`. */
export const SERVICE_NAME = 'eval-platform-api';
export const USER_AGENT = `${SERVICE_NAME}/${buildStamp.version}`;
