// Addresses that only this machine can reach: the ops endpoint needs no token there.

/** True for 127.0.0.0/8, ::1 and localhost (a Host header's name, without its port). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h.endsWith('.localhost');
}
