/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.replace(/^::ffff:/i, "");
  return plain === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/** True when `host` (as given to --host) listens on loopback only. */
export function isLoopbackBind(host: string): boolean {
  return host === "localhost" || isLoopback(host.replace(/^\[|\]$/g, ""));
}
