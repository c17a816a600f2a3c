// Package display renders what ledger shows to people, and nothing else: a
// wallet review of a prepared transaction (RenderText), transaction trees
// and completions. It decides layout, width and colour; what is shown —
// effects, deadlines, warnings, the summary sentence, short ids — is the
// review model's (package wallet/review), built by the wallet.
//
// Plain text when colour is off (not a terminal, or NO_COLOR), the same
// layout with colour otherwise. Nothing in a prepared transaction is trusted
// for display: every string from it is escaped before it reaches a
// terminal, so a template name or a text value cannot move the cursor,
// recolour the screen or hide characters.
package display
