import sharp from 'sharp';

export interface ViewVariant {
  contentType: string;
  data: Buffer;
}

/**
 * The re-encodings GET /view does with PIL: `preview=webp;90|jpeg;80` and `channel=rgb|a`.
 * Returns null when the file is to be sent as stored (the default `rgba` channel).
 */
export const renderViewVariant = async (file: string, preview: string | null, channelParam: string | null): Promise<ViewVariant | null> => {
  // The preview branch reads a missing channel as "", the channel branch as "rgba", as server.py does.
  const channel = channelParam ?? '';
  if (preview !== null) {
    const parts = preview.split(';');
    const format = (parts[0] === 'webp' || parts[0] === 'jpeg') && !channel.includes('a') ? parts[0] : 'webp';
    const last = parts[parts.length - 1] ?? '';
    const quality = /^\d+$/.test(last) ? Math.min(100, Math.max(1, Number(last))) : 90;
    let image = sharp(file);
    if (format === 'jpeg' || channel === 'rgb') image = image.removeAlpha();
    const data = format === 'jpeg' ? await image.jpeg({ quality }).toBuffer() : await image.webp({ quality }).toBuffer();
    return { contentType: `image/${format}`, data };
  }
  if ((channelParam ?? 'rgba') === 'rgb') {
    return { contentType: 'image/png', data: await sharp(file).removeAlpha().png().toBuffer() };
  }
  if (channelParam === 'a') {
    // An RGBA image, black, carrying the source's alpha (opaque when it has none), as ComfyUI builds it.
    const { data: alpha, info } = await sharp(file).ensureAlpha().extractChannel(3).raw().toBuffer({ resolveWithObject: true });
    const rgba = Buffer.alloc(info.width * info.height * 4);
    for (let i = 0; i < info.width * info.height; i++) rgba[i * 4 + 3] = alpha[i] ?? 255;
    const data = await sharp(rgba, { raw: { width: info.width, height: info.height, channels: 4 } }).png().toBuffer();
    return { contentType: 'image/png', data };
  }
  return null;
};
