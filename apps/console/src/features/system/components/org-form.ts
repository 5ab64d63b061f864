/** An organisation code: 1 to 32 letters, digits, '-' or '_' (the server's rule). */
export const ORG_CODE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
