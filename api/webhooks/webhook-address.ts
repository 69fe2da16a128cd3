/**
 * @module Where webhooks may go. In production an endpoint must be https and reach only public
 * addresses: a URL that resolves to loopback, a private network, link-local (cloud metadata) or
 * any other special-purpose range is refused when registered, and again at every delivery, on the
 * very address connected to (DNS can change between the two, or answer differently each time).
 */
import dns from 'node:dns';
import net from 'node:net';

const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  // Transition forms carry an IPv4 address inside an IPv6 one (::127.0.0.1, 2002:7f00:1::), so a
  // relay or translator may deliver them to a loopback or private host. None is an address a
  // merchant's server has, so each prefix is refused whole, whatever IPv4 address it carries.
  // (IPv4-mapped ::ffff:0:0/96 is not among them: the BlockList checks it as its IPv4 address.)
  ['::', 96], // IPv4-compatible (deprecated), with :: and ::1
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT)
  ['64:ff9b::', 96], // NAT64, well-known prefix
  ['64:ff9b:1::', 48], // NAT64, local-use prefix
  ['2001::', 32], // Teredo
  ['2002::', 16], // 6to4
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv6');
}

/** Whether an IP address is one a webhook may be sent to in production. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !BLOCKED.check(address, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  return !BLOCKED.check(address, 'ipv6');
}

/** Why a URL cannot be a webhook endpoint (checked before any lookup), or undefined. */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL, like https://shop.example/webhooks';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (!allowPrivate && url.protocol !== 'https:') return 'must be an https URL (plain http is allowed only outside production)';
  if (url.hash) return 'must not have a fragment';
  // Endpoints are listed to every dashboard user and in the API: no credentials in them. The
  // signature (webhook-signature, with the endpoint's secret) is how the receiver knows the sender.
  if (url.username || url.password) return 'must not carry a user name or password (verify the webhook-signature header with the endpoint secret instead)';
  return undefined;
}

/** The host of a URL as a lookup takes it (no IPv6 brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why the addresses a host resolves to cannot receive webhooks, or undefined; `allowPrivate` skips the check. */
export async function addressProblem(host: string, allowPrivate: boolean): Promise<string | undefined> {
  if (allowPrivate) return undefined;
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return `has a host, ${host}, that does not resolve`;
  }
  const blocked = addresses.find((a) => !isPublicAddress(a));
  return blocked ? `resolves to ${blocked}, a loopback, private or link-local address; webhooks go to public addresses only` : undefined;
}

/**
 * A `lookup` for http.request that resolves as usual and refuses a non-public answer, so the
 * connection is made only to an address that passed the check.
 */
export function publicOnlyLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const usable = allowPrivate ? list : list.filter((a) => isPublicAddress(a.address));
      if (usable.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves to ${list[0]?.address ?? 'nothing'}, not a public address; not sent`), { code: 'EPRIVATEADDRESS' });
        return callback(refused, '', 0);
      }
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
