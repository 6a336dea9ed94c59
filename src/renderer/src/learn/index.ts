import './learn.css';

export { LearnView, type LearnSource } from './LearnView';
