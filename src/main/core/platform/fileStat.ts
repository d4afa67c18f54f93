// What a stat of a file answers, wherever the file is (a backend's Environment, the sandbox's file server).
export interface FileStat {
  type: 'file' | 'directory' | 'other' | 'missing';
  size: number;
}
