import { staffWrite } from "@/lib/staff/http";
import { deleteCustomer, updateCustomer, UserDataEdit } from "@/lib/staff/operations";

export const PATCH = staffWrite({
  permission: "customers.write",
  body: UserDataEdit,
  run: (req, tx) => updateCustomer(tx, req.staff, req.params.customerId!, req.body),
});

export const DELETE = staffWrite({
  permission: "customers.delete",
  run: (req, tx) => deleteCustomer(tx, req.staff, req.params.customerId!),
});
