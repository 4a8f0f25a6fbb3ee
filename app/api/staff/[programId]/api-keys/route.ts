import { staffWrite } from "@/lib/staff/http";
import { ApiKeyForm } from "@/lib/staff/forms/api-keys";
import { createApiKeyAsStaff } from "@/lib/staff/operations/api-keys";

/** Creates an API key; 201 with its secret, shown this once. */
export const POST = staffWrite(createApiKeyAsStaff, { body: ApiKeyForm, status: 201, args: (req) => [req.body] });
