package kernels

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
)

// The on-disk program cache keeps one file per program binary, named by the
// program's cache key (device, driver, options and source). Files are written
// to a temporary name and renamed into place, so concurrent processes never
// see a half-written entry; a file whose checksum does not match is treated
// as absent and rebuilt.
//
// The folder is $OCLSOLVE_CACHE if set ("off" disables the cache), else
// oclsolve/programs under the user cache folder (os.UserCacheDir).

var cacheMagic = []byte("OCLSBIN1")

// CacheDir returns the folder of the program cache, or "" when disabled.
func CacheDir() string {
	if dir := os.Getenv("OCLSOLVE_CACHE"); dir != "" {
		if dir == "off" {
			return ""
		}
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "oclsolve", "programs")
}

func cachePath(key string) string {
	dir := CacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, key+".bin")
}

// diskCacheLoad returns the stored binary for key, or nil.
func diskCacheLoad(key string) []byte {
	path := cachePath(key)
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	hdr := len(cacheMagic) + 8 + sha256.Size
	if len(data) < hdr || !bytes.Equal(data[:len(cacheMagic)], cacheMagic) {
		return nil
	}
	n := binary.LittleEndian.Uint64(data[len(cacheMagic):])
	body := data[hdr:]
	if uint64(len(body)) != n {
		return nil
	}
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], data[len(cacheMagic)+8:hdr]) {
		return nil
	}
	return body
}

// diskCacheStore writes bin for key; failures are ignored because the cache
// only saves time.
func diskCacheStore(key string, bin []byte) {
	path := cachePath(key)
	if path == "" {
		return
	}
	dir := filepath.Dir(path)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, err := os.CreateTemp(dir, key+".tmp*")
	if err != nil {
		return
	}
	sum := sha256.Sum256(bin)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(bin)))
	_, err = f.Write(bytes.Join([][]byte{cacheMagic, n[:], sum[:], bin}, nil))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

func diskCacheRemove(key string) {
	if path := cachePath(key); path != "" {
		os.Remove(path)
	}
}
