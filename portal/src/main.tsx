import { render } from 'preact';
import './styles.css';
import { App } from './app';
import { applyTheme, currentTheme } from './theme';

applyTheme(currentTheme());
render(<App />, document.getElementById('app')!);
