import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '@/test/render';
import { BoxedImage } from './BoxedImage';
import { classColor, paletteColor, PALETTE, textOn } from './boxColors';

describe('BoxedImage', () => {
  it('places each box in percent of the image, with its name and score', () => {
    renderWithApp(
      <BoxedImage
        src="/a.png"
        width={200}
        height={100}
        testId="picture"
        boxes={[
          { x: 20, y: 50, width: 100, height: 25, label: 'cat', score: 0.876 },
          { x: 0, y: 0, width: 10, height: 10, label: 'dog', dashed: true },
        ]}
      />,
    );
    expect(screen.getByTestId('picture')).toHaveAttribute('data-boxes', '2');
    const [cat, dog] = screen.getAllByTestId('drawn-box');
    expect(cat.style.left).toBe('10%');
    expect(cat.style.top).toBe('50%');
    expect(cat.style.width).toBe('50%');
    expect(cat.style.height).toBe('25%');
    expect(cat).toHaveTextContent('cat 0.88');
    expect(cat.style.border).toContain('solid');
    expect(dog).toHaveAttribute('data-dashed', 'true');
    expect(dog.style.border).toContain('dashed');
    expect(dog).toHaveTextContent(/^dog$/);
  });

  it('colours boxes by class (the same class, the same colour) unless a colour is given', () => {
    renderWithApp(
      <BoxedImage
        src="/a.png"
        width={64}
        height={64}
        showLabels={false}
        boxes={[
          { x: 1, y: 1, width: 5, height: 5, label: 'b' },
          { x: 9, y: 9, width: 5, height: 5, label: 'a' },
          { x: 20, y: 20, width: 5, height: 5, label: 'b', dashed: true },
          { x: 30, y: 30, width: 5, height: 5, label: 'a', color: '#123456' },
        ]}
      />,
    );
    const boxes = screen.getAllByTestId('drawn-box');
    const colorOf = (element: HTMLElement) => element.style.borderColor;
    expect(colorOf(boxes[0])).toBe(colorOf(boxes[2]));
    expect(colorOf(boxes[0])).not.toBe(colorOf(boxes[1]));
    expect(colorOf(boxes[3])).toBe('rgb(18, 52, 86)');
    expect(boxes[0].querySelector('span')).toBeNull();
  });
});

describe('box colours', () => {
  it('repeats the palette after 20 classes and greys an unknown class', () => {
    expect(new Set(PALETTE).size).toBe(20);
    expect(paletteColor(20)).toBe(paletteColor(0));
    expect(classColor('b', ['a', 'b'])).toBe(PALETTE[1]);
    expect(classColor('z', ['a', 'b'])).toBe('#868e96');
  });

  it('writes black on light colours and white on dark ones', () => {
    expect(textOn('#ffe119')).toBe('#000');
    expect(textOn('#000075')).toBe('#fff');
  });
});
