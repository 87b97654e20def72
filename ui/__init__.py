"""The web chat over a qa index (Gradio); see ui.app.build_app and ui.app.serve."""
