/**
 * Which addresses webhook and push deliveries may connect to (lib/net/address-policy.ts): public unicast only, with
 * loopback added by the development setting. Written from the IANA special-purpose registries, not from the code.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { addressAllowed, classifyAddress } from "@/lib/net/address-policy";

const cases: [string, ReturnType<typeof classifyAddress>][] = [
  // IPv4
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.255", "private"],
  ["100.128.0.1", "public"],
  ["169.254.169.254", "metadata"],
  ["169.254.1.1", "link-local"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["255.255.255.255", "reserved"],
  ["192.0.2.10", "reserved"],
  ["198.18.0.1", "reserved"],
  // IPv6
  ["2606:4700:4700::1111", "public"],
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "reserved"],
  // IPv6 carrying an IPv4 address: judged by the IPv4 inside
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:a9fe:a9fe", "metadata"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::808:808", "public"],
  ["::127.0.0.1", "loopback"],
  ["2002:7f00:1::", "loopback"],
  ["2002:0a00:0001::1", "private"],
  ["[::1]", "loopback"],
  // not addresses
  ["localhost", "invalid"],
  ["", "invalid"],
];

describe("classifyAddress", () => {
  for (const [ip, expected] of cases)
    test(`${ip || "(empty)"} is ${expected}`, () => assert.equal(classifyAddress(ip), expected));
});

describe("addressAllowed", () => {
  test("only public addresses, plus loopback with the development setting and nothing else", () => {
    assert.equal(addressAllowed("8.8.8.8", false), true);
    assert.equal(addressAllowed("127.0.0.1", false), false);
    assert.equal(addressAllowed("127.0.0.1", true), true);
    assert.equal(addressAllowed("::ffff:127.0.0.1", true), true);
    for (const ip of ["10.0.0.1", "169.254.169.254", "fd00:ec2::254", "0.0.0.0", "ff02::1", "localhost"]) {
      assert.equal(addressAllowed(ip, true), false, ip);
    }
  });

  test("the URL parser normalises decimal, hex and octal IPv4 hosts before they are classified", () => {
    // These are what an attacker types to slip 127.0.0.1 or the metadata address past a string check.
    for (const [url, host] of [
      ["http://2130706433/", "127.0.0.1"],
      ["http://0x7f.1/", "127.0.0.1"],
      ["http://0177.0.0.1/", "127.0.0.1"],
      ["http://169.254.43518/", "169.254.169.254"],
      ["http://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ] as const) {
      const parsed = new URL(url).hostname;
      assert.equal(parsed, host, url);
      assert.equal(addressAllowed(parsed, false), false, url);
    }
  });
});
