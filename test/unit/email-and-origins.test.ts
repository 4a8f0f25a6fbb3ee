/**
 * The e-mail rule (lib/domain/email.ts) and the allowed-origin rule (lib/domain/web-origins.ts), example by example.
 * test/integration/customers-api.test.ts drives the e-mail rule through the API on both databases.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { asciiDomain, asciiDomainThroughIdna, emailAddress, normaliseEmail } from "@/lib/domain/email";
import { allowedOrigins, allowedOriginsProblem, webOrigin } from "@/lib/domain/web-origins";

describe("e-mail addresses", () => {
  test("one stored form: IDNA ASCII domain, NFC lower-cased local part", () => {
    for (const [input, stored] of [
      ["jane.doe@example.com", "jane.doe@example.com"],
      ["  Jane.Doe+Tag@Example.COM ", "jane.doe+tag@example.com"],
      ["jose@bücher.de", "jose@xn--bcher-kva.de"],
      ["JOSE@BÜCHER.DE", "jose@xn--bcher-kva.de"],
      ["jose@xn--bcher-kva.de", "jose@xn--bcher-kva.de"],
      ["jose@ｂüｃｈｅｒ。de", "jose@xn--bcher-kva.de"],
      ["josé@example.com", "josé@example.com"],
      ["jose\u0301@example.com", "josé@example.com"],
      ["JOSÉ@example.com", "josé@example.com"],
      ["用户@例子.广告", "用户@xn--fsqu00a.xn--4rr70v"],
      ["o'brien_x-y@sub.example.co.uk", "o'brien_x-y@sub.example.co.uk"],
    ] as const)
      assert.equal(emailAddress(input), stored, input);
  });

  test("refused: quoted or symbol local parts, bad dots, hyphens, no top-level domain, IPs, too long", () => {
    for (const input of [
      "",
      "@example.com",
      "jose@",
      "jose",
      '"jose"@example.com',
      "jo se@example.com",
      "jose☃@example.com",
      ".jose@example.com",
      "jose.@example.com",
      "jo..se@example.com",
      "jose@bücher",
      "jose@-bücher.de",
      "jose@bücher-.de",
      "jose@xn--zz.de",
      "jose@127.0.0.1",
      "jose@[127.0.0.1]",
      "jose@exa_mple.com",
      "jose@example.c0m",
      "jose@example..com",
      `${"é".repeat(33)}@example.com`,
      `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com`,
      "jose\u0000@example.com",
    ])
      assert.equal(emailAddress(input), null, JSON.stringify(input));
    assert.notEqual(emailAddress(`${"é".repeat(32)}@example.com`), null, "64 bytes fit");
  });

  test("the fast path for plain ASCII domains answers as the URL parser's IDNA does", () => {
    // Generated domains of the characters the fast path takes (letters of both cases, digits, `.`, `-`), with the
    // shapes where the URL parser could differ: numeric and hex last labels (IPv4 forms), empty labels, edge hyphens,
    // Punycode labels (valid and not), long labels and hosts.
    const pieces = [
      "a",
      "Z",
      "x",
      "0",
      "9",
      "-",
      ".",
      "xn--",
      "bcher-kva",
      "0x1f",
      "255",
      "com",
      "DE",
      "",
      "ab-",
      "-cd",
    ];
    let seed = 22;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const cases = [
      "example.com",
      "EXAMPLE.COM",
      "xn--bcher-kva.de",
      "XN--BCHER-KVA.DE",
      "1.2.3.4",
      "a.0x10",
      "a.b.123",
    ];
    for (let i = 0; i < 20_000; i++) {
      let domain = "";
      for (let k = 1 + random(8); k > 0; k--) domain += pieces[random(pieces.length)];
      if (random(50) === 0) domain += ".a".repeat(random(130)) + "com";
      cases.push(domain);
    }
    let addresses = 0;
    for (const domain of cases) {
      const expected = asciiDomainThroughIdna(domain);
      assert.equal(asciiDomain(domain), expected, domain);
      if (expected) addresses++;
    }
    assert.ok(addresses > 500, `only ${addresses} of the generated domains were domains`);
  });

  test("a string that is no address still names no customer, in its trimmed lower-cased form", () => {
    assert.equal(normaliseEmail(" Not An Address "), "not an address");
    assert.equal(normaliseEmail("JOSE@BÜCHER.DE"), "jose@xn--bcher-kva.de");
  });
});

describe("allowed web origins", () => {
  test("an origin is stored as browsers send it", () => {
    assert.equal(webOrigin("https://Shop.Example.com/"), "https://shop.example.com");
    assert.equal(webOrigin("https://shop.example.com:443"), "https://shop.example.com");
    assert.equal(webOrigin("http://localhost:5173"), "http://localhost:5173");
    assert.equal(webOrigin("https://bücher.de"), "https://xn--bcher-kva.de");
    assert.deepEqual(allowedOrigins(["https://a.example", "https://A.example/", "http://a.example"]), [
      "https://a.example",
      "http://a.example",
    ]);
  });

  test("anything but an origin is refused", () => {
    for (const value of [
      "*",
      "null",
      "a.example",
      "https://a.example/path",
      "https://a.example?x",
      "https://u:p@a.example",
      "ftp://a.example",
      "javascript:alert(1)",
    ])
      assert.equal(webOrigin(value), null, value);
    assert.match(allowedOriginsProblem(["https://a.example", "*"]) ?? "", /"\*" is not an origin/);
    assert.match(
      allowedOriginsProblem(Array.from({ length: 21 }, (_, i) => `https://a${i}.example`)) ?? "",
      /at most 20/,
    );
    assert.equal(allowedOriginsProblem([]), null);
  });
});
