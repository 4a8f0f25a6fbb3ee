import { staffWrite } from "@/lib/staff/http";
import { UserDataEdit } from "@/lib/staff/forms/customers";
import { deleteCustomer, updateCustomer } from "@/lib/staff/operations/customers";

/** PATCH edits the customer's user data (200 with it); DELETE erases the customer (200). */
export const PATCH = staffWrite(updateCustomer, {
  body: UserDataEdit,
  args: (req) => [req.params.customerId!, req.body, req.version],
});

export const DELETE = staffWrite(deleteCustomer, { args: (req) => [req.params.customerId!] });
