import { staffWrite } from "@/lib/staff/http";
import { UserDataEdit } from "@/lib/staff/forms";
import { deleteCustomer, updateCustomer } from "@/lib/staff/operations";

export const PATCH = staffWrite({
  permission: "customers.edit",
  body: UserDataEdit,
  run: (req, tx) => updateCustomer(tx, req.staff, req.params.customerId!, req.body),
});

export const DELETE = staffWrite({
  permission: "customers.delete",
  run: (req, tx) => deleteCustomer(tx, req.staff, req.params.customerId!),
});
