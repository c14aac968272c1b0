export { startServer, type RunningServer } from './serve.js';
