/** The protocol version this build speaks. The first frame down carries it; `ready` echoes it. */
export const PROTOCOL_VERSION = 1;

/** No single frame may exceed this many bytes, newline excluded (16 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
