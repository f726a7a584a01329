package display

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// The names below are gophernotes' display API, so that cells written for
// gophernotes run here unchanged: HTML, Markdown, Latex, Math, SVG, PNG,
// JPEG, PDF, JavaScript, JSON, Any, Auto, File, MakeData, MakeData3, MIME
// and Display. The package's own names (LaTeX, Show, Text, ...) stay.

// MIMEMap maps MIME types to representations, as in gophernotes (a defined
// type rather than gophernotes' alias: the interpreter binds defined types
// only).
type MIMEMap map[string]any

// MakeData returns a bundle holding data under mimeType, with its fmt text
// as the plain-text form. Binary data ([]byte) is base64-encoded, as the
// Jupyter protocol carries it.
func MakeData(mimeType string, data any) Data {
	if mimeType == MIMEText {
		return Text(fmt.Sprint(data))
	}
	return MakeData3(mimeType, plainText(mimeType, data), data)
}

// MakeData3 is MakeData with the plain-text form given.
func MakeData3(mimeType, plaintext string, data any) Data {
	if b, ok := data.([]byte); ok {
		data = base64.StdEncoding.EncodeToString(b)
	}
	return Data{Bundle: map[string]any{mimeType: data, MIMEText: plaintext}}
}

func plainText(mimeType string, data any) string {
	switch d := data.(type) {
	case []byte:
		return fmt.Sprintf("[%s, %d bytes]", mimeType, len(d))
	case string:
		if strings.HasPrefix(mimeType, "text/") {
			return d
		}
		return "[" + mimeType + "]"
	}
	return fmt.Sprint(data)
}

// MIME returns a bundle of the given representations and metadata.
func MIME(data, metadata MIMEMap) Data {
	return Data{Bundle: data, Metadata: metadata}
}

// Latex returns a bundle that shows s as inline math ($s$), as gophernotes'
// Latex does; Math shows it as display math ($$s$$).
func Latex(s string) Data {
	return bundle(MIMELaTeX, "$"+strings.Trim(s, "$")+"$", s)
}

// Math returns a bundle that shows the LaTeX formula s as display math.
func Math(s string) Data {
	return bundle(MIMELaTeX, "$$"+strings.Trim(s, "$")+"$$", s)
}

// JPEG returns a bundle that shows the JPEG-encoded image b.
func JPEG(b []byte) Data { return MakeData(MIMEJPEG, b) }

// PDF returns a bundle that shows the PDF document b.
func PDF(b []byte) Data { return MakeData(MIMEPDF, b) }

// JavaScript returns a bundle that runs the script s in the front end.
func JavaScript(s string) Data { return MakeData3(MIMEJS, "[JavaScript]", s) }

// Any returns a bundle of data under mimeType: a string, []byte or
// io.Reader is taken as the content (an empty mimeType is detected from
// the bytes); any other value renders as Render does.
func Any(mimeType string, data any) Data {
	var b []byte
	switch d := data.(type) {
	case string:
		if mimeType == "" {
			return Text(d)
		}
		return MakeData(mimeType, d)
	case []byte:
		b = d
	case io.Reader:
		var err error
		if b, err = io.ReadAll(d); err != nil {
			return Text(fmt.Sprintf("display: reading: %v", err))
		}
	default:
		return Render(data)
	}
	if mimeType == "" {
		mimeType = detect(b)
	}
	switch {
	case mimeType == MIMEText:
		return Text(string(b))
	case mimeType == MIMESVG, strings.HasPrefix(mimeType, "text/"), mimeType == MIMEJS:
		return MakeData(mimeType, string(b))
	}
	return MakeData(mimeType, b)
}

// Auto is Any with the MIME type detected from the content.
func Auto(data any) Data { return Any("", data) }

// detect names the MIME type of b: net/http's content sniffing, plus SVG,
// which it reports as XML or text.
func detect(b []byte) string {
	head := b[:min(len(b), 512)]
	if bytes.Contains(head, []byte("<svg")) {
		return MIMESVG
	}
	t, _, _ := strings.Cut(http.DetectContentType(b), ";")
	return t
}

// File returns a bundle of the file at path, of type mimeType (detected
// from the content when empty). A file that cannot be read gives a text
// bundle naming the error, so that a cell shows it instead of failing.
func File(mimeType, path string) Data {
	b, err := os.ReadFile(path)
	if err != nil {
		return Text(fmt.Sprintf("display: %v", err))
	}
	return Any(mimeType, b)
}

// Display shows d now, as Show does; it returns an error for gophernotes
// compatibility, and never fails here.
func Display(d Data) error {
	Show(d)
	return nil
}
