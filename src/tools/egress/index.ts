export {
  decodeEgressReport,
  decodeSessionReply,
  type EgressOpen,
  type EgressReport,
} from './egress-control.js';
export { EgressProxy } from './egress-proxy.js';
export { proxyMainPath } from './proxy-main-path.js';
