/** The protocol version this build speaks. The first frame down carries it; `ready` echoes it. */
export const PROTOCOL_VERSION = 1;

/** No single frame may exceed this many bytes, newline excluded (16 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * No frame may nest objects and arrays deeper than this. JSON.parse copes with deeper input, but
 * everything after it that walks the value (serializing it to the store, say) would overflow the
 * stack.
 */
export const MAX_FRAME_DEPTH = 100;
