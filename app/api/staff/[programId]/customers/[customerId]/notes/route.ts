import { staffWrite } from "@/lib/staff/http";
import { NoteForm } from "@/lib/staff/forms/customers";
import { addNote } from "@/lib/staff/operations/customers";

/** POST adds an internal note on the customer (201 with it); never sent to the customer. */
export const POST = staffWrite(addNote, {
  body: NoteForm,
  status: 201,
  args: (req) => [req.params.customerId!, req.body],
});
