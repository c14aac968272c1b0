export { startServer, type RunningServer, type ServeOptions } from './serve.js';
