//go:build clp && cgo

package mechanism

// released reports whether free has deleted the CLP model.
func (c *clpModel) released() bool { return c.m == nil }
