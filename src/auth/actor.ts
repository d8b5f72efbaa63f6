// Who is acting on a record: the caller's id (JWT subject, session user, apikey:<name>, or SYSTEM
// with AUTH_MODE=none), written as created_by/updated_by and into the audit trail.
export interface Actor {
  id: string;
}
