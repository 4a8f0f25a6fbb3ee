"use client";

import { EditDrawer } from "../edit-drawer";
import { SettingsForm, type SettingsData } from "./settings-form";

/** The settings card's "Edit" button and drawer (managers and owners). */
export function SettingsDrawer(props: {
  programId: string;
  settings: SettingsData;
  timeZones: string[];
  version: string | Date;
}) {
  return (
    <EditDrawer title="Edit program settings" button="Edit" buttonLabel="Edit settings">
      {(close) => <SettingsForm {...props} onSaved={close} />}
    </EditDrawer>
  );
}
