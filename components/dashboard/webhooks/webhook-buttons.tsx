import { staffApi } from "@/lib/staff/urls";
import { dangerButtonClass, secondaryButtonClass } from "@/components/ui";
import { WriteButton } from "../write-button";

/** The webhooks page's row buttons (managers): switch an endpoint on or off, send a delivery again. */

export function WebhookActiveButton({
  programId,
  webhookId,
  active,
  url,
  version,
}: {
  programId: string;
  webhookId: string;
  active: boolean;
  url: string;
  /** The webhook's version: a click from a page someone else has changed since is refused (409 stale_edit). */
  version: string | Date;
}) {
  return (
    <WriteButton
      write={{
        method: "PATCH",
        url: staffApi.webhook(programId, webhookId),
        success: active ? "Webhook disabled" : "Webhook enabled",
      }}
      body={{ active: !active }}
      version={version}
      confirm={active ? `Disable the webhook ${url}? Deliveries still queued for it are cancelled.` : null}
      className={active ? dangerButtonClass : secondaryButtonClass}
      label={`${active ? "Disable" : "Enable"} webhook ${url}`}
    >
      {active ? "Disable" : "Enable"}
    </WriteButton>
  );
}

export function ResendButton({ programId, deliveryId }: { programId: string; deliveryId: string }) {
  return (
    <WriteButton
      write={{ method: "POST", url: staffApi.resendDelivery(programId, deliveryId), success: "Delivery queued again" }}
      className={`${secondaryButtonClass} whitespace-nowrap`}
      label={`Re-send delivery ${deliveryId}`}
    >
      Re-send
    </WriteButton>
  );
}

/** Queues a signed `webhook.test` event for this one endpoint; the delivery log shows it and its payload. */
export function TestEventButton({ programId, webhookId, url }: { programId: string; webhookId: string; url: string }) {
  return (
    <WriteButton
      write={{
        method: "POST",
        url: staffApi.webhookTestEvent(programId, webhookId),
        success: "Test event queued: see the delivery log",
      }}
      className={`${secondaryButtonClass} whitespace-nowrap`}
      label={`Send a test event to ${url}`}
    >
      Send test event
    </WriteButton>
  );
}
