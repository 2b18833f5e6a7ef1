// Report: figures (and later tables) written for papers.
export { renderFigure } from './figure';
