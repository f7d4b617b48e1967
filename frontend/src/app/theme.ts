import { createTheme } from '@mantine/core';

// Latin first, then the Chinese fonts of macOS, Windows and Linux (Noto/Source Han, WenQuanYi), so
// Chinese text gets a real CJK face rather than whatever the browser falls back to.
const FONTS = [
  'Inter',
  'system-ui',
  '-apple-system',
  '"Segoe UI"',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  '"PingFang SC"',
  '"Hiragino Sans GB"',
  '"Microsoft YaHei"',
  '"Noto Sans CJK SC"',
  '"Source Han Sans SC"',
  '"WenQuanYi Zen Hei"',
  'sans-serif',
].join(', ');

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'md',
  fontFamily: FONTS,
  headings: { fontFamily: FONTS, fontWeight: '650' },
});
