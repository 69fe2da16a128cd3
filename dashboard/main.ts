/** The dashboard's entry: its style sheet and the application element. */
import './dashboard.css';
import './dashboard-app.element.ts';
