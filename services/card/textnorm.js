/*
 * textnorm.js: the JavaScript twin of vocabulary/textnorm.py.
 *
 * Normalization (docs/architecture.md, "Shared definitions"): Unicode NFKC, case fold, unify quote and dash
 * variants, join hyphenated line breaks, collapse whitespace. It must give the
 * same output as the Python side character for character; both are checked
 * against tests/data/textnorm_vectors.json. Positions are counted in code
 * points (as Python counts them), never in UTF-16 units.
 *
 * Python's combining classes and str.casefold() are embedded as tables (see
 * services/offline/unicode_tables.py); NFKC comes from
 * String.prototype.normalize and letters/digits from \p{L} / \p{N}.
 *
 * Works inlined in a page (defines globalThis.TextNorm) and under Node
 * (module.exports).
 */
(function (root) {
  "use strict";

// BEGIN GENERATED UNICODE TABLES
// (python -m services.offline.unicode_tables --write; do not edit by hand)
const UNIDATA_VERSION = "14.0.0";
// Inclusive [first, last] pairs: unicodedata.combining(ch) != 0.
const COMBINING_RANGES = [
  0x300, 0x34e, 0x350, 0x36f, 0x483, 0x487, 0x591, 0x5bd, 0x5bf, 0x5bf, 0x5c1, 0x5c2,
  0x5c4, 0x5c5, 0x5c7, 0x5c7, 0x610, 0x61a, 0x64b, 0x65f, 0x670, 0x670, 0x6d6, 0x6dc,
  0x6df, 0x6e4, 0x6e7, 0x6e8, 0x6ea, 0x6ed, 0x711, 0x711, 0x730, 0x74a, 0x7eb, 0x7f3,
  0x7fd, 0x7fd, 0x816, 0x819, 0x81b, 0x823, 0x825, 0x827, 0x829, 0x82d, 0x859, 0x85b,
  0x898, 0x89f, 0x8ca, 0x8e1, 0x8e3, 0x8ff, 0x93c, 0x93c, 0x94d, 0x94d, 0x951, 0x954,
  0x9bc, 0x9bc, 0x9cd, 0x9cd, 0x9fe, 0x9fe, 0xa3c, 0xa3c, 0xa4d, 0xa4d, 0xabc, 0xabc,
  0xacd, 0xacd, 0xb3c, 0xb3c, 0xb4d, 0xb4d, 0xbcd, 0xbcd, 0xc3c, 0xc3c, 0xc4d, 0xc4d,
  0xc55, 0xc56, 0xcbc, 0xcbc, 0xccd, 0xccd, 0xd3b, 0xd3c, 0xd4d, 0xd4d, 0xdca, 0xdca,
  0xe38, 0xe3a, 0xe48, 0xe4b, 0xeb8, 0xeba, 0xec8, 0xecb, 0xf18, 0xf19, 0xf35, 0xf35,
  0xf37, 0xf37, 0xf39, 0xf39, 0xf71, 0xf72, 0xf74, 0xf74, 0xf7a, 0xf7d, 0xf80, 0xf80,
  0xf82, 0xf84, 0xf86, 0xf87, 0xfc6, 0xfc6, 0x1037, 0x1037, 0x1039, 0x103a, 0x108d, 0x108d,
  0x135d, 0x135f, 0x1714, 0x1715, 0x1734, 0x1734, 0x17d2, 0x17d2, 0x17dd, 0x17dd, 0x18a9, 0x18a9,
  0x1939, 0x193b, 0x1a17, 0x1a18, 0x1a60, 0x1a60, 0x1a75, 0x1a7c, 0x1a7f, 0x1a7f, 0x1ab0, 0x1abd,
  0x1abf, 0x1ace, 0x1b34, 0x1b34, 0x1b44, 0x1b44, 0x1b6b, 0x1b73, 0x1baa, 0x1bab, 0x1be6, 0x1be6,
  0x1bf2, 0x1bf3, 0x1c37, 0x1c37, 0x1cd0, 0x1cd2, 0x1cd4, 0x1ce0, 0x1ce2, 0x1ce8, 0x1ced, 0x1ced,
  0x1cf4, 0x1cf4, 0x1cf8, 0x1cf9, 0x1dc0, 0x1dff, 0x20d0, 0x20dc, 0x20e1, 0x20e1, 0x20e5, 0x20f0,
  0x2cef, 0x2cf1, 0x2d7f, 0x2d7f, 0x2de0, 0x2dff, 0x302a, 0x302f, 0x3099, 0x309a, 0xa66f, 0xa66f,
  0xa674, 0xa67d, 0xa69e, 0xa69f, 0xa6f0, 0xa6f1, 0xa806, 0xa806, 0xa82c, 0xa82c, 0xa8c4, 0xa8c4,
  0xa8e0, 0xa8f1, 0xa92b, 0xa92d, 0xa953, 0xa953, 0xa9b3, 0xa9b3, 0xa9c0, 0xa9c0, 0xaab0, 0xaab0,
  0xaab2, 0xaab4, 0xaab7, 0xaab8, 0xaabe, 0xaabf, 0xaac1, 0xaac1, 0xaaf6, 0xaaf6, 0xabed, 0xabed,
  0xfb1e, 0xfb1e, 0xfe20, 0xfe2f, 0x101fd, 0x101fd, 0x102e0, 0x102e0, 0x10376, 0x1037a,
  0x10a0d, 0x10a0d, 0x10a0f, 0x10a0f, 0x10a38, 0x10a3a, 0x10a3f, 0x10a3f, 0x10ae5, 0x10ae6,
  0x10d24, 0x10d27, 0x10eab, 0x10eac, 0x10f46, 0x10f50, 0x10f82, 0x10f85, 0x11046, 0x11046,
  0x11070, 0x11070, 0x1107f, 0x1107f, 0x110b9, 0x110ba, 0x11100, 0x11102, 0x11133, 0x11134,
  0x11173, 0x11173, 0x111c0, 0x111c0, 0x111ca, 0x111ca, 0x11235, 0x11236, 0x112e9, 0x112ea,
  0x1133b, 0x1133c, 0x1134d, 0x1134d, 0x11366, 0x1136c, 0x11370, 0x11374, 0x11442, 0x11442,
  0x11446, 0x11446, 0x1145e, 0x1145e, 0x114c2, 0x114c3, 0x115bf, 0x115c0, 0x1163f, 0x1163f,
  0x116b6, 0x116b7, 0x1172b, 0x1172b, 0x11839, 0x1183a, 0x1193d, 0x1193e, 0x11943, 0x11943,
  0x119e0, 0x119e0, 0x11a34, 0x11a34, 0x11a47, 0x11a47, 0x11a99, 0x11a99, 0x11c3f, 0x11c3f,
  0x11d42, 0x11d42, 0x11d44, 0x11d45, 0x11d97, 0x11d97, 0x16af0, 0x16af4, 0x16b30, 0x16b36,
  0x16ff0, 0x16ff1, 0x1bc9e, 0x1bc9e, 0x1d165, 0x1d169, 0x1d16d, 0x1d172, 0x1d17b, 0x1d182,
  0x1d185, 0x1d18b, 0x1d1aa, 0x1d1ad, 0x1d242, 0x1d244, 0x1e000, 0x1e006, 0x1e008, 0x1e018,
  0x1e01b, 0x1e021, 0x1e023, 0x1e024, 0x1e026, 0x1e02a, 0x1e130, 0x1e136, 0x1e2ae, 0x1e2ae,
  0x1e2ec, 0x1e2ef, 0x1e8d0, 0x1e8d6, 0x1e944, 0x1e94a,
];
// str.casefold() to one code point: start, count, step, delta.
const CASEFOLD_RUNS = [
  0x41, 26, 1, 32, 0xb5, 1, 1, 775, 0xc0, 23, 1, 32, 0xd8, 7, 1, 32, 0x100, 24, 2, 1,
  0x132, 3, 2, 1, 0x139, 8, 2, 1, 0x14a, 23, 2, 1, 0x178, 1, 1, -121, 0x179, 3, 2, 1,
  0x17f, 1, 1, -268, 0x181, 1, 1, 210, 0x182, 2, 2, 1, 0x186, 1, 1, 206, 0x187, 1, 1, 1,
  0x189, 2, 1, 205, 0x18b, 1, 1, 1, 0x18e, 1, 1, 79, 0x18f, 1, 1, 202, 0x190, 1, 1, 203,
  0x191, 1, 1, 1, 0x193, 1, 1, 205, 0x194, 1, 1, 207, 0x196, 1, 1, 211, 0x197, 1, 1, 209,
  0x198, 1, 1, 1, 0x19c, 1, 1, 211, 0x19d, 1, 1, 213, 0x19f, 1, 1, 214, 0x1a0, 3, 2, 1,
  0x1a6, 1, 1, 218, 0x1a7, 1, 1, 1, 0x1a9, 1, 1, 218, 0x1ac, 1, 1, 1, 0x1ae, 1, 1, 218,
  0x1af, 1, 1, 1, 0x1b1, 2, 1, 217, 0x1b3, 2, 2, 1, 0x1b7, 1, 1, 219, 0x1b8, 1, 1, 1,
  0x1bc, 1, 1, 1, 0x1c4, 1, 1, 2, 0x1c5, 1, 1, 1, 0x1c7, 1, 1, 2, 0x1c8, 1, 1, 1, 0x1ca, 1, 1, 2,
  0x1cb, 9, 2, 1, 0x1de, 9, 2, 1, 0x1f1, 1, 1, 2, 0x1f2, 2, 2, 1, 0x1f6, 1, 1, -97,
  0x1f7, 1, 1, -56, 0x1f8, 20, 2, 1, 0x220, 1, 1, -130, 0x222, 9, 2, 1, 0x23a, 1, 1, 10795,
  0x23b, 1, 1, 1, 0x23d, 1, 1, -163, 0x23e, 1, 1, 10792, 0x241, 1, 1, 1, 0x243, 1, 1, -195,
  0x244, 1, 1, 69, 0x245, 1, 1, 71, 0x246, 5, 2, 1, 0x345, 1, 1, 116, 0x370, 2, 2, 1,
  0x376, 1, 1, 1, 0x37f, 1, 1, 116, 0x386, 1, 1, 38, 0x388, 3, 1, 37, 0x38c, 1, 1, 64,
  0x38e, 2, 1, 63, 0x391, 17, 1, 32, 0x3a3, 9, 1, 32, 0x3c2, 1, 1, 1, 0x3cf, 1, 1, 8,
  0x3d0, 1, 1, -30, 0x3d1, 1, 1, -25, 0x3d5, 1, 1, -15, 0x3d6, 1, 1, -22, 0x3d8, 12, 2, 1,
  0x3f0, 1, 1, -54, 0x3f1, 1, 1, -48, 0x3f4, 1, 1, -60, 0x3f5, 1, 1, -64, 0x3f7, 1, 1, 1,
  0x3f9, 1, 1, -7, 0x3fa, 1, 1, 1, 0x3fd, 3, 1, -130, 0x400, 16, 1, 80, 0x410, 32, 1, 32,
  0x460, 17, 2, 1, 0x48a, 27, 2, 1, 0x4c0, 1, 1, 15, 0x4c1, 7, 2, 1, 0x4d0, 48, 2, 1,
  0x531, 38, 1, 48, 0x10a0, 38, 1, 7264, 0x10c7, 1, 1, 7264, 0x10cd, 1, 1, 7264, 0x13f8, 6, 1, -8,
  0x1c80, 1, 1, -6222, 0x1c81, 1, 1, -6221, 0x1c82, 1, 1, -6212, 0x1c83, 2, 1, -6210,
  0x1c85, 1, 1, -6211, 0x1c86, 1, 1, -6204, 0x1c87, 1, 1, -6180, 0x1c88, 1, 1, 35267,
  0x1c90, 43, 1, -3008, 0x1cbd, 3, 1, -3008, 0x1e00, 75, 2, 1, 0x1e9b, 1, 1, -58,
  0x1ea0, 48, 2, 1, 0x1f08, 8, 1, -8, 0x1f18, 6, 1, -8, 0x1f28, 8, 1, -8, 0x1f38, 8, 1, -8,
  0x1f48, 6, 1, -8, 0x1f59, 4, 2, -8, 0x1f68, 8, 1, -8, 0x1fb8, 2, 1, -8, 0x1fba, 2, 1, -74,
  0x1fbe, 1, 1, -7173, 0x1fc8, 4, 1, -86, 0x1fd8, 2, 1, -8, 0x1fda, 2, 1, -100, 0x1fe8, 2, 1, -8,
  0x1fea, 2, 1, -112, 0x1fec, 1, 1, -7, 0x1ff8, 2, 1, -128, 0x1ffa, 2, 1, -126,
  0x2126, 1, 1, -7517, 0x212a, 1, 1, -8383, 0x212b, 1, 1, -8262, 0x2132, 1, 1, 28,
  0x2160, 16, 1, 16, 0x2183, 1, 1, 1, 0x24b6, 26, 1, 26, 0x2c00, 48, 1, 48, 0x2c60, 1, 1, 1,
  0x2c62, 1, 1, -10743, 0x2c63, 1, 1, -3814, 0x2c64, 1, 1, -10727, 0x2c67, 3, 2, 1,
  0x2c6d, 1, 1, -10780, 0x2c6e, 1, 1, -10749, 0x2c6f, 1, 1, -10783, 0x2c70, 1, 1, -10782,
  0x2c72, 1, 1, 1, 0x2c75, 1, 1, 1, 0x2c7e, 2, 1, -10815, 0x2c80, 50, 2, 1, 0x2ceb, 2, 2, 1,
  0x2cf2, 1, 1, 1, 0xa640, 23, 2, 1, 0xa680, 14, 2, 1, 0xa722, 7, 2, 1, 0xa732, 31, 2, 1,
  0xa779, 2, 2, 1, 0xa77d, 1, 1, -35332, 0xa77e, 5, 2, 1, 0xa78b, 1, 1, 1, 0xa78d, 1, 1, -42280,
  0xa790, 2, 2, 1, 0xa796, 10, 2, 1, 0xa7aa, 1, 1, -42308, 0xa7ab, 1, 1, -42319,
  0xa7ac, 1, 1, -42315, 0xa7ad, 1, 1, -42305, 0xa7ae, 1, 1, -42308, 0xa7b0, 1, 1, -42258,
  0xa7b1, 1, 1, -42282, 0xa7b2, 1, 1, -42261, 0xa7b3, 1, 1, 928, 0xa7b4, 8, 2, 1,
  0xa7c4, 1, 1, -48, 0xa7c5, 1, 1, -42307, 0xa7c6, 1, 1, -35384, 0xa7c7, 2, 2, 1, 0xa7d0, 1, 1, 1,
  0xa7d6, 2, 2, 1, 0xa7f5, 1, 1, 1, 0xab70, 80, 1, -38864, 0xff21, 26, 1, 32, 0x10400, 40, 1, 40,
  0x104b0, 36, 1, 40, 0x10570, 11, 1, 39, 0x1057c, 15, 1, 39, 0x1058c, 7, 1, 39,
  0x10594, 2, 1, 39, 0x10c80, 51, 1, 64, 0x118a0, 32, 1, 32, 0x16e40, 32, 1, 32,
  0x1e900, 34, 1, 34,
];
// str.casefold() to several code points: code point, folded string.
const CASEFOLD_MULTI = [
  0xdf, "\u{73}\u{73}", 0x130, "\u{69}\u{307}", 0x149, "\u{2bc}\u{6e}", 0x1f0, "\u{6a}\u{30c}",
  0x390, "\u{3b9}\u{308}\u{301}", 0x3b0, "\u{3c5}\u{308}\u{301}", 0x587, "\u{565}\u{582}",
  0x1e96, "\u{68}\u{331}", 0x1e97, "\u{74}\u{308}", 0x1e98, "\u{77}\u{30a}",
  0x1e99, "\u{79}\u{30a}", 0x1e9a, "\u{61}\u{2be}", 0x1e9e, "\u{73}\u{73}",
  0x1f50, "\u{3c5}\u{313}", 0x1f52, "\u{3c5}\u{313}\u{300}", 0x1f54, "\u{3c5}\u{313}\u{301}",
  0x1f56, "\u{3c5}\u{313}\u{342}", 0x1f80, "\u{1f00}\u{3b9}", 0x1f81, "\u{1f01}\u{3b9}",
  0x1f82, "\u{1f02}\u{3b9}", 0x1f83, "\u{1f03}\u{3b9}", 0x1f84, "\u{1f04}\u{3b9}",
  0x1f85, "\u{1f05}\u{3b9}", 0x1f86, "\u{1f06}\u{3b9}", 0x1f87, "\u{1f07}\u{3b9}",
  0x1f88, "\u{1f00}\u{3b9}", 0x1f89, "\u{1f01}\u{3b9}", 0x1f8a, "\u{1f02}\u{3b9}",
  0x1f8b, "\u{1f03}\u{3b9}", 0x1f8c, "\u{1f04}\u{3b9}", 0x1f8d, "\u{1f05}\u{3b9}",
  0x1f8e, "\u{1f06}\u{3b9}", 0x1f8f, "\u{1f07}\u{3b9}", 0x1f90, "\u{1f20}\u{3b9}",
  0x1f91, "\u{1f21}\u{3b9}", 0x1f92, "\u{1f22}\u{3b9}", 0x1f93, "\u{1f23}\u{3b9}",
  0x1f94, "\u{1f24}\u{3b9}", 0x1f95, "\u{1f25}\u{3b9}", 0x1f96, "\u{1f26}\u{3b9}",
  0x1f97, "\u{1f27}\u{3b9}", 0x1f98, "\u{1f20}\u{3b9}", 0x1f99, "\u{1f21}\u{3b9}",
  0x1f9a, "\u{1f22}\u{3b9}", 0x1f9b, "\u{1f23}\u{3b9}", 0x1f9c, "\u{1f24}\u{3b9}",
  0x1f9d, "\u{1f25}\u{3b9}", 0x1f9e, "\u{1f26}\u{3b9}", 0x1f9f, "\u{1f27}\u{3b9}",
  0x1fa0, "\u{1f60}\u{3b9}", 0x1fa1, "\u{1f61}\u{3b9}", 0x1fa2, "\u{1f62}\u{3b9}",
  0x1fa3, "\u{1f63}\u{3b9}", 0x1fa4, "\u{1f64}\u{3b9}", 0x1fa5, "\u{1f65}\u{3b9}",
  0x1fa6, "\u{1f66}\u{3b9}", 0x1fa7, "\u{1f67}\u{3b9}", 0x1fa8, "\u{1f60}\u{3b9}",
  0x1fa9, "\u{1f61}\u{3b9}", 0x1faa, "\u{1f62}\u{3b9}", 0x1fab, "\u{1f63}\u{3b9}",
  0x1fac, "\u{1f64}\u{3b9}", 0x1fad, "\u{1f65}\u{3b9}", 0x1fae, "\u{1f66}\u{3b9}",
  0x1faf, "\u{1f67}\u{3b9}", 0x1fb2, "\u{1f70}\u{3b9}", 0x1fb3, "\u{3b1}\u{3b9}",
  0x1fb4, "\u{3ac}\u{3b9}", 0x1fb6, "\u{3b1}\u{342}", 0x1fb7, "\u{3b1}\u{342}\u{3b9}",
  0x1fbc, "\u{3b1}\u{3b9}", 0x1fc2, "\u{1f74}\u{3b9}", 0x1fc3, "\u{3b7}\u{3b9}",
  0x1fc4, "\u{3ae}\u{3b9}", 0x1fc6, "\u{3b7}\u{342}", 0x1fc7, "\u{3b7}\u{342}\u{3b9}",
  0x1fcc, "\u{3b7}\u{3b9}", 0x1fd2, "\u{3b9}\u{308}\u{300}", 0x1fd3, "\u{3b9}\u{308}\u{301}",
  0x1fd6, "\u{3b9}\u{342}", 0x1fd7, "\u{3b9}\u{308}\u{342}", 0x1fe2, "\u{3c5}\u{308}\u{300}",
  0x1fe3, "\u{3c5}\u{308}\u{301}", 0x1fe4, "\u{3c1}\u{313}", 0x1fe6, "\u{3c5}\u{342}",
  0x1fe7, "\u{3c5}\u{308}\u{342}", 0x1ff2, "\u{1f7c}\u{3b9}", 0x1ff3, "\u{3c9}\u{3b9}",
  0x1ff4, "\u{3ce}\u{3b9}", 0x1ff6, "\u{3c9}\u{342}", 0x1ff7, "\u{3c9}\u{342}\u{3b9}",
  0x1ffc, "\u{3c9}\u{3b9}", 0xfb00, "\u{66}\u{66}", 0xfb01, "\u{66}\u{69}",
  0xfb02, "\u{66}\u{6c}", 0xfb03, "\u{66}\u{66}\u{69}", 0xfb04, "\u{66}\u{66}\u{6c}",
  0xfb05, "\u{73}\u{74}", 0xfb06, "\u{73}\u{74}", 0xfb13, "\u{574}\u{576}",
  0xfb14, "\u{574}\u{565}", 0xfb15, "\u{574}\u{56b}", 0xfb16, "\u{57e}\u{576}",
  0xfb17, "\u{574}\u{56d}",
];
// END GENERATED UNICODE TABLES

  const SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u0060\u00b4\uff07";
  const DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02";
  const DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u00ad";
  const MIN_WORDS = 3;
  const MIN_CHARS = 12;
  // Python's str.isspace() characters.
  const PY_SPACE = new Set(
    "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001\u2002\u2003" +
      "\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
  );
  const LINE_BREAKS = new Set("\n\r\u2028\u2029\u000b\u000c\u0085");
  const ALPHA = /^\p{L}$/u;
  const ALNUM = /^[\p{L}\p{N}]$/u;

  const TRANSLATE = new Map();
  for (const ch of SINGLE_QUOTES) TRANSLATE.set(ch, "'");
  for (const ch of DOUBLE_QUOTES) TRANSLATE.set(ch, '"');
  for (const ch of DASHES) TRANSLATE.set(ch, "-");

  const CASEFOLD = new Map();
  for (let i = 0; i < CASEFOLD_RUNS.length; i += 4) {
    const [start, count, step, delta] = CASEFOLD_RUNS.slice(i, i + 4);
    for (let k = 0; k < count; k++) {
      const cp = start + k * step;
      CASEFOLD.set(cp, String.fromCodePoint(cp + delta));
    }
  }
  for (let i = 0; i < CASEFOLD_MULTI.length; i += 2) {
    CASEFOLD.set(CASEFOLD_MULTI[i], CASEFOLD_MULTI[i + 1]);
  }

  function isCombining(ch) {
    const cp = ch.codePointAt(0);
    let lo = 0;
    let hi = COMBINING_RANGES.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < COMBINING_RANGES[2 * mid]) hi = mid - 1;
      else if (cp > COMBINING_RANGES[2 * mid + 1]) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** Python's str.casefold(). */
  function casefold(text) {
    let out = "";
    for (const ch of text) {
      const folded = CASEFOLD.get(ch.codePointAt(0));
      out += folded === undefined ? ch : folded;
    }
    return out;
  }

  function translate(text) {
    let out = "";
    for (const ch of text) {
      const mapped = TRANSLATE.get(ch);
      out += mapped === undefined ? ch : mapped;
    }
    return out;
  }

  const isSpace = (ch) => PY_SPACE.has(ch);
  const isAlpha = (ch) => ALPHA.test(ch);
  const isAlnum = (ch) => ALNUM.test(ch);

  /** Base character + following combining marks, so NFKC can compose them. */
  function clusters(chars) {
    const out = [];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      if (out.length && isCombining(ch)) out[out.length - 1][1] += ch;
      else out.push([i, ch]);
    }
    return out;
  }

  /**
   * Normalized text plus, for each of its code points, the code-point index
   * in the original text: {text, chars, origin}.
   */
  function normalizeWithMap(text) {
    const chars = [];
    const origin = [];
    for (const [start, cluster] of clusters(Array.from(text))) {
      // Soft hyphen is invisible in rendered text: drop it rather than map it to '-'.
      if (cluster === "\u00ad") continue;
      // Unify quotes/dashes before NFKC too (as the Python side does).
      const mapped = translate(casefold(translate(cluster).normalize("NFKC")));
      for (const ch of mapped) {
        chars.push(ch);
        origin.push(start);
      }
    }
    // Join hyphenated line breaks: "evi-\n  dence" -> "evidence".
    const joined = [];
    const joinedOrigin = [];
    const n = chars.length;
    let i = 0;
    while (i < n) {
      const ch = chars[i];
      if (ch === "-" && joined.length && isAlnum(joined[joined.length - 1])) {
        let j = i + 1;
        let sawNewline = false;
        while (j < n && isSpace(chars[j])) {
          sawNewline = sawNewline || LINE_BREAKS.has(chars[j]);
          j += 1;
        }
        if (sawNewline && j < n && isAlpha(chars[j])) {
          i = j;
          continue;
        }
      }
      joined.push(ch);
      joinedOrigin.push(origin[i]);
      i += 1;
    }
    // Collapse whitespace runs to one space and strip the ends.
    const outChars = [];
    const outOrigin = [];
    for (let k = 0; k < joined.length; k++) {
      const ch = joined[k];
      if (isSpace(ch)) {
        if (outChars.length && outChars[outChars.length - 1] !== " ") {
          outChars.push(" ");
          outOrigin.push(joinedOrigin[k]);
        }
        continue;
      }
      outChars.push(ch);
      outOrigin.push(joinedOrigin[k]);
    }
    if (outChars.length && outChars[outChars.length - 1] === " ") {
      outChars.pop();
      outOrigin.pop();
    }
    return { text: outChars.join(""), chars: outChars, origin: outOrigin };
  }

  /** Normalize text for quote matching. */
  function normalize(text) {
    return normalizeWithMap(text).text;
  }

  /** Python's len(): code points, not UTF-16 units. */
  function pyLen(text) {
    let count = 0;
    for (const _ of text) count += 1; // eslint-disable-line no-unused-vars
    return count;
  }

  /** Number of \w+ runs (Python: str.isalnum() characters and '_'). */
  function countWords(text) {
    let words = 0;
    let inWord = false;
    for (const ch of text) {
      const w = ch === "_" || isAlnum(ch);
      if (w && !inWord) words += 1;
      inWord = w;
    }
    return words;
  }

  /** At least minWords words and minChars characters after normalization. */
  function isNontrivial(quote, minWords = MIN_WORDS, minChars = MIN_CHARS) {
    const norm = normalize(quote);
    return pyLen(norm) >= minChars && countWords(norm) >= minWords;
  }

  /** Code-point index of needle in the code-point array hay, or -1. */
  function indexOfChars(hay, hayText, needle) {
    const pos16 = hayText.indexOf(needle);
    if (pos16 < 0) return -1;
    return pyLen(hayText.slice(0, pos16));
  }

  /**
   * Where the normalized quote occurs in the page, as [start, end) code-point
   * offsets in the ORIGINAL page text, or null. `pageNorm` (optional) is
   * normalizeWithMap(pageText), for callers that cache it.
   */
  function findQuote(quote, pageText, pageNorm) {
    const q = normalize(quote);
    if (!q) return null;
    const page = pageNorm || normalizeWithMap(pageText);
    const pos = indexOfChars(page.chars, page.text, q);
    if (pos < 0) return null;
    const start = page.origin[pos];
    const last = page.origin[pos + pyLen(q) - 1];
    const original = Array.from(pageText);
    let end = last + 1;
    // Extend over the rest of a combining cluster so the highlight covers whole characters.
    while (end < original.length && isCombining(original[end])) end += 1;
    return [start, end];
  }

  function quoteInPage(quote, pageText, pageNorm) {
    const q = normalize(quote);
    const page = pageNorm ? pageNorm.text : normalize(pageText);
    return Boolean(q) && page.includes(q);
  }

  /** Convert a code-point offset in text to a UTF-16 offset (for DOM ranges). */
  function utf16Offset(text, cpOffset) {
    let units = 0;
    let k = 0;
    for (const ch of text) {
      if (k === cpOffset) break;
      units += ch.length;
      k += 1;
    }
    return units;
  }

  const api = {
    UNIDATA_VERSION,
    MIN_WORDS,
    MIN_CHARS,
    normalize,
    normalizeWithMap,
    isNontrivial,
    findQuote,
    quoteInPage,
    casefold,
    isCombining,
    isSpace,
    utf16Offset,
    pyLen,
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.TextNorm = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
