package stockd

// bundleTouches adds the component SKUs of a bundle document.
func bundleTouches(d *Document, t *Touches) {
}
