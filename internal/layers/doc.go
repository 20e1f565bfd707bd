// Package layers holds the test that keeps the package layering described
// in ARCHITECTURE.md: no Fyne below app and views (agents' subpackages
// included), store imports only codec and its own subpackages
// (store/listcache, a leaf), views never imports
// agents nor one of its subpackages, only main imports app, only tests use
// internal/, and the leaf packages (codec, editdiff, display, printable, safelink, indexdb) import
// none of ours. It has no code of its own.
package layers
