import * as wavefileModule from 'wavefile';

/**
 * wavefile's WaveFile class, whichever build is loaded: Node loads its CommonJS build (its exports
 * are the namespace's default), a bundler its ES module (whose exports are the namespace itself).
 */
export const WaveFile: typeof wavefileModule.WaveFile =
  (wavefileModule as { WaveFile?: typeof wavefileModule.WaveFile }).WaveFile ??
  (wavefileModule as unknown as { default: { WaveFile: typeof wavefileModule.WaveFile } }).default.WaveFile;
