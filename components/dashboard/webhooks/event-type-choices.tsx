import { EVENT_TYPES } from "@/lib/domain/vocabulary";
import { FieldError, checkboxClass } from "@/components/ui";

/**
 * The event types a webhook receives, as a group of checkboxes named `eventTypes`: none ticked means every event
 * type (also those added later), which the legend says.
 */
export function EventTypeChoices({
  idPrefix,
  selected,
  error,
}: {
  idPrefix: string;
  selected: readonly string[];
  error?: string;
}) {
  return (
    <fieldset className="min-w-0">
      <legend className="text-sm font-medium text-slate-800">Events (none ticked: every event)</legend>
      <div className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-2 lg:grid-cols-4">
        {EVENT_TYPES.map((type) => (
          <label key={type} className="flex items-center gap-2" htmlFor={`${idPrefix}-${type}`}>
            <input
              id={`${idPrefix}-${type}`}
              type="checkbox"
              name="eventTypes"
              value={type}
              defaultChecked={selected.includes(type)}
              className={checkboxClass}
            />
            <span className="font-mono text-xs">{type}</span>
          </label>
        ))}
      </div>
      <FieldError error={error} className="mt-1" />
    </fieldset>
  );
}
