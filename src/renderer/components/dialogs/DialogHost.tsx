// Where the window's modal dialogs mount. The "Approve command" dialog (approvals) goes here: one component per file in this folder,
// rendered by DialogHost when its zustand slice has something pending. Nothing is pending yet, so this renders nothing.
export function DialogHost() {
  return null;
}
