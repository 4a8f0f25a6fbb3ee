import { anchor, refName, type Media, type Schema } from "./document";

/** How the reference writes types: a schema as a short type expression (links to named schemas), a method, a body. */

export function TypeOf({ schema }: { schema: Schema | undefined }) {
  if (!schema) return <span>any</span>;
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return (
      <a
        href={`#${anchor(name)}`}
        className="font-mono text-indigo-700 underline decoration-indigo-300 hover:decoration-indigo-700"
      >
        {name}
      </a>
    );
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    return (
      <>
        {union.map((s, i) => (
          <span key={i}>
            {i > 0 && " | "}
            <TypeOf schema={s} />
          </span>
        ))}
      </>
    );
  }
  if (schema.allOf?.length === 1) return <TypeOf schema={schema.allOf[0]} />;
  if (schema.allOf) {
    return (
      <>
        {schema.allOf.map((s, i) => (
          <span key={i}>
            {i > 0 && " & "}
            <TypeOf schema={s} />
          </span>
        ))}
      </>
    );
  }
  if (schema.enum) return <span className="font-mono">{schema.enum.map((v) => JSON.stringify(v)).join(" | ")}</span>;
  if (schema.const !== undefined) return <span className="font-mono">{JSON.stringify(schema.const)}</span>;
  if (schema.type === "array") {
    return (
      <>
        array of <TypeOf schema={schema.items} />
      </>
    );
  }
  if (
    schema.type === "object" &&
    !schema.properties &&
    schema.additionalProperties &&
    schema.additionalProperties !== true
  ) {
    return (
      <>
        object of string → <TypeOf schema={schema.additionalProperties} />
      </>
    );
  }
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  return <span className="font-mono">{schema.format ? `${type} (${schema.format})` : type}</span>;
}

const METHOD_TONES: Record<string, string> = {
  get: "bg-emerald-100 text-emerald-900",
  post: "bg-indigo-100 text-indigo-900",
  delete: "bg-red-100 text-red-900",
  patch: "bg-amber-100 text-amber-900",
  put: "bg-amber-100 text-amber-900",
};

export function MethodBadge({ method }: { method: string }) {
  return (
    <span
      className={`rounded px-1.5 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_TONES[method] ?? "bg-slate-100 text-slate-900"}`}
    >
      {method}
    </span>
  );
}

export function BodySchema({ media, label }: { media: Media | undefined; label: string }) {
  const [type, entry] = Object.entries(media ?? {})[0] ?? [];
  if (!type || !entry?.schema) return null;
  return (
    <span>
      <TypeOf schema={entry.schema} /> <span className="text-xs text-slate-600">({type})</span>
      <span className="sr-only"> {label}</span>
    </span>
  );
}
